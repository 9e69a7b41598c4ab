import { Skeleton } from './feedback';

/** What a screen shows while its code loads: a bar where the title goes and a few rows. */
export function PageSkeleton() {
  return (
    <div className="screen">
      <div className="nav-bar" aria-hidden="true" />
      <div className="page">
        <Skeleton rows={5} height={52} />
      </div>
    </div>
  );
}
