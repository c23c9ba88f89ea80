// The app's versions past the first page (keyset paging from the first page's nextCursor, as
// the Runs tab's older runs): when a new version pushes the first page on, the older pages are
// read again from its new cursor and no version falls between two pages.
import useSWRInfinite from 'swr/infinite';
import { api } from '../api/client';
import type { Page, VersionSummary } from '../api/types';
import { keys } from '../api/endpoints';

export function useOlderVersions(workspaceId: string, appId: string, firstCursor: string | null | undefined) {
  const { data, error, size, setSize } = useSWRInfinite<Page<VersionSummary>>(
    (index: number, previous: Page<VersionSummary> | null) => {
      const cursor = index === 0 ? firstCursor : previous?.nextCursor;
      return cursor ? keys.versionsAfter(workspaceId, appId, cursor) : null;
    },
    (path: string) => api<Page<VersionSummary>>(path),
    // Nothing is read until the reader asks for older versions.
    { initialSize: 0, persistSize: true, revalidateFirstPage: false, revalidateOnFocus: false },
  );
  const pages = data ?? [];
  const next = pages.length === 0 ? Boolean(firstCursor) : Boolean(pages.at(-1)?.nextCursor);
  const loading = !error && next && size > pages.length;
  return {
    versions: pages.flatMap((p) => p.items),
    error,
    loading,
    more: next && !loading,
    loadMore: () => void setSize(pages.length + 1),
  };
}
