import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Icon } from '../ui/Icon';
import { EnvVarKeys } from './EnvVarKeys';
import type { AppTemplateServiceView, AppTemplateView } from './gitHosts';
import styles from './integrations.module.css';

export const APP_TYPE_LABELS: Record<AppTemplateServiceView['appType'], string> = { WEB: 'Web service', WORKER: 'Worker', STATIC: 'Static site' };
export const BUILD_STRATEGY_LABELS: Record<AppTemplateServiceView['buildStrategy'], string> = { BUILDPACK: 'Buildpack', DOCKERFILE: 'Dockerfile' };

/** What the repository's app template says, or why it cannot be used: the services an app made from it would run. */
export function TemplatePreview({ template }: { template: AppTemplateView }) {
  if (!template.found) {
    return (
      <div className={styles.templateNone}>
        <Icon name="info" size={16} />
        <p>
          No app template at this branch. An app made from the repository takes its service’s settings from the create form; add{' '}
          <code>.cloudpanel/app.yaml</code> to keep them with the code.
        </p>
      </div>
    );
  }
  if (!template.valid) {
    return (
      <Alert tone="danger" title="The template has a mistake">
        <p className={styles.templateError}>
          <code>{template.path}</code>: {template.error}
        </p>
        <p>Fix it in the repository, or give the service’s settings in the create form instead.</p>
      </Alert>
    );
  }
  return (
    <section className={styles.template} aria-label={`Template ${template.name}`}>
      <p className={styles.templateHead}>
        <Badge tone="success">Valid template</Badge>
        <code>{template.path}</code>
        <span className="muted">
          proposes the app <strong className="mono">{template.name}</strong> with {template.services.length}{' '}
          {template.services.length === 1 ? 'service' : 'services'}
        </span>
      </p>
      <ul className={styles.services} aria-label="Template services">
        {template.services.map((service) => (
          <li key={service.name} className={styles.service}>
            <TemplateService service={service} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function TemplateService({ service }: { service: AppTemplateServiceView }) {
  const ports =
    service.appType === 'WORKER'
      ? `listens on ${service.internalPort}, not public`
      : service.appType === 'STATIC'
        ? `served on ${service.publicPort}`
        : `${service.publicPort} → ${service.internalPort}`;
  return (
    <>
      <p className={styles.serviceHead}>
        <strong className="mono">{service.name}</strong>
        <Badge>{APP_TYPE_LABELS[service.appType]}</Badge>
        <span className="muted">
          <span className="mono">{service.instanceSize}</span> × {service.instances} in <span className="mono">{service.region}</span>
        </span>
      </p>
      <dl className={`details-list ${styles.serviceDetails}`}>
        <dt>Source</dt>
        <dd>{service.sourceDir === '.' ? 'The repository root' : <span className="mono">{service.sourceDir}</span>}</dd>
        <dt>Build</dt>
        <dd>
          {BUILD_STRATEGY_LABELS[service.buildStrategy]}
          {service.buildCommand ? <code className={styles.command}>{service.buildCommand}</code> : null}
        </dd>
        {service.appType === 'STATIC' ? (
          <>
            <dt>Output</dt>
            <dd className="mono">{service.outputDir}</dd>
          </>
        ) : (
          <>
            <dt>Run</dt>
            <dd>{service.runCommand ? <code className={styles.command}>{service.runCommand}</code> : <span className="muted">The strategy’s default</span>}</dd>
          </>
        )}
        <dt>Ports</dt>
        <dd>{ports}</dd>
        <dt>Deploys on push</dt>
        <dd>{service.autoDeploy ? 'Yes' : 'No'}</dd>
        {service.envVars.length > 0 ? (
          <>
            <dt>Environment</dt>
            <dd>
              <EnvVarKeys
                variables={service.envVars}
                titleOf={(variable) => (variable.secret ? 'Secret: sealed when the app is made, and never shown again' : undefined)}
              />
            </dd>
          </>
        ) : null}
      </dl>
    </>
  );
}
