'use client';

import { skipToken, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import type { Column } from '../ui/Table';
import { formatMinorUnits } from '../ui/money';
import type { DomainCandidate } from './domains';
import styles from './domains.module.css';

const columns: Column<DomainCandidate>[] = [
  { header: 'Name', cell: (candidate) => <span className={`mono ${styles.candidateName}`}>{candidate.name}</span> },
  {
    header: 'Availability',
    cell: (candidate) => (
      <span className={styles.badges}>
        {candidate.available ? <Badge tone="success">Available</Badge> : <Badge>Taken</Badge>}
        {candidate.premium ? (
          <Badge tone="warning" title="The registry prices this name above its usual price">
            Premium
          </Badge>
        ) : null}
      </span>
    ),
  },
  {
    header: 'Per year',
    className: styles.priceCell,
    cell: (candidate) =>
      candidate.available ? (
        <span className={styles.price}>{formatMinorUnits(candidate.priceYearly, candidate.currency)}</span>
      ) : (
        <span className="muted">—</span>
      ),
  },
];

/** Searching only informs: names are registered at a registrar, then added to the project as external domains. */
export function FindDomainCard() {
  const trpc = useTRPC();
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState<string | null>(null);
  const candidates = useQuery(trpc.domains.search.queryOptions(searched ? { query: searched } : skipToken, { staleTime: 60_000, retry: false }));
  const queryError = candidates.error ? appErrorOf(candidates.error).fields?.query : undefined;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const wanted = query.trim();
    if (wanted) setSearched(wanted);
  }

  return (
    <Card
      title="Find a domain"
      description="See whether a name is free and what it costs a year. Registering happens at a registrar of your choice, not in this panel; add the domain here once it is yours."
      aria-label="Find a domain"
    >
      <div className="stack">
        <form className={styles.searchForm} onSubmit={submit} role="search" aria-label="Find a domain">
          <Input
            label="Name or idea"
            name="query"
            placeholder="acme-shop or acme.dev"
            autoComplete="off"
            spellCheck={false}
            value={query}
            error={queryError}
            hint="Without a TLD, the name is tried under .com, .net, .org, .io, .dev and .app."
            onChange={(event) => setQuery(event.target.value)}
          />
          <SubmitButton loading={candidates.isFetching}>
            <Icon name="globe" /> Search
          </SubmitButton>
        </form>
        {searched && !queryError ? (
          <div className={styles.candidates}>
            <DataList
              label="Domain names found"
              query={candidates}
              columns={columns}
              rowKey={(candidate) => candidate.name}
              loadingRows={3}
              empty={<EmptyState icon="globe" title="No names found" description="Try another name or a different ending." />}
            />
          </div>
        ) : null}
      </div>
    </Card>
  );
}
