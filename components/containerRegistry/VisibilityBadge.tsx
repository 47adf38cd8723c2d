import { formatDateTime } from '../format';
import { Badge } from '../ui/Badge';
import type { RepositoryView } from './registry';

/** PUBLIC or PRIVATE, and, for a repository its egress cap closed, when that happened. */
export function VisibilityBadge({ repository }: { repository: Pick<RepositoryView, 'visibility' | 'publicEgressCapHitAt'> }) {
  const closedAt = repository.visibility === 'PRIVATE' ? repository.publicEgressCapHitAt : null;
  return (
    <span style={{ display: 'inline-flex', gap: 6, flexWrap: 'wrap', alignItems: 'center' }}>
      {repository.visibility === 'PUBLIC' ? (
        <Badge tone="warning" title="Anyone may pull without logging in; pushes still need an API key">
          Public
        </Badge>
      ) : (
        <Badge title="Every pull and push needs an API key of this project">Private</Badge>
      )}
      {closedAt ? (
        <Badge tone="danger" title="Anonymous pulls reached the egress cap, which closed the repository to PRIVATE">
          Closed by cap at {formatDateTime(closedAt)}
        </Badge>
      ) : null}
    </span>
  );
}
