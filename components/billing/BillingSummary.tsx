import Link from 'next/link';
import { projectPath } from '../projects/areas';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { formatMinorUnits } from '../ui/money';
import { Skeleton } from '../ui/Skeleton';
import { CardBrand } from './CardBrand';
import { cardExpiry, cardLabel, isCardExpired, periodLabel } from './format';
import type { BillingOverview } from './types';
import styles from './billing.module.css';

export function BillingSummary({ projectId, overview, isBiller }: { projectId: string; overview: BillingOverview; isBiller: boolean }) {
  const money = (amount: number) => formatMinorUnits(amount, overview.currency);
  const card = overview.defaultPaymentMethod;
  return (
    <Card title="Summary" aria-label="Billing summary">
      <div className={styles.summary}>
        <dl className={styles.summaryPeople}>
          <div className={styles.summaryItem}>
            <dt>Billing holder</dt>
            <dd>
              <span className={styles.summaryValue}>
                {overview.biller.name}
                {isBiller ? <Badge tone="accent">You</Badge> : null}
              </span>
              <span className={styles.summarySub}>{overview.biller.email}</span>
            </dd>
          </div>
          <div className={styles.summaryItem}>
            <dt>Billing email</dt>
            <dd>
              <span className={styles.summaryValue}>{overview.billingEmail}</span>
              <span className={styles.summarySub}>
                Invoices go here. <Link href={projectPath(projectId, 'settings')}>Change it in Settings</Link>
              </span>
            </dd>
          </div>
          <div className={styles.summaryItem}>
            <dt>Default card</dt>
            <dd data-testid="summary-default-card">
              {card ? (
                <>
                  <span className={styles.summaryValue}>
                    <CardBrand brand={card.brand} />
                    {cardLabel(card)}
                  </span>
                  <span className={styles.summarySub}>
                    {isCardExpired(card) ? <Badge tone="danger">Expired {cardExpiry(card)}</Badge> : `Expires ${cardExpiry(card)}`}
                  </span>
                </>
              ) : overview.billerHasPaymentMethod ? (
                <>
                  <span className={styles.summaryValue}>On file</span>
                  <span className={styles.summarySub}>Only {overview.biller.name} sees its details.</span>
                </>
              ) : (
                <>
                  <span className={styles.summaryValue}>No card</span>
                  <span className={styles.summarySub}>Paid resources need one.</span>
                </>
              )}
            </dd>
          </div>
        </dl>
        <dl className={styles.summaryFigures}>
          <div className={styles.summaryItem}>
            <dt>Credit balance</dt>
            <dd>
              <span className={`${styles.summaryValue} ${styles.figure}`}>{money(overview.creditBalance)}</span>
              <span className={styles.summarySub}>Used before the card is charged.</span>
            </dd>
          </div>
          <div className={styles.summaryItem}>
            <dt>This month</dt>
            <dd>
              <span className={`${styles.summaryValue} ${styles.figure}`}>{money(overview.currentMonth.total)}</span>
              <span className={styles.summarySub}>{periodLabel(overview.currentMonth.month)} so far</span>
            </dd>
          </div>
        </dl>
      </div>
    </Card>
  );
}

export function BillingSummarySkeleton() {
  return (
    <Card title="Summary" aria-label="Billing summary">
      <div className={styles.summary} aria-busy="true">
        <div className={styles.summaryPeople}>
          {Array.from({ length: 3 }, (_, index) => (
            <div key={index} className={styles.summaryItem}>
              <Skeleton width="50%" height={12} />
              <Skeleton width="80%" height={18} style={{ marginTop: 8 }} />
            </div>
          ))}
        </div>
        <div className={styles.summaryFigures}>
          {Array.from({ length: 2 }, (_, index) => (
            <div key={index} className={styles.summaryItem}>
              <Skeleton width="50%" height={12} />
              <Skeleton width="40%" height={24} style={{ marginTop: 8 }} />
            </div>
          ))}
        </div>
      </div>
    </Card>
  );
}
