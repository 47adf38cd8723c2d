import Link from 'next/link';
import { Icon } from '../ui/Icon';

export function Brand() {
  return (
    <Link href="/" className="brand">
      <span className="brand-mark">
        <Icon name="cloud" size={16} />
      </span>
      <span className="brand-text">Cloud Panel</span>
    </Link>
  );
}
