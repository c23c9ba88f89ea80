// The app's builder runs past the first page (keyset paging: each page starts after the
// previous page's nextCursor, docs/http-api.md). The chain hangs off the first page's cursor,
// so when a new run pushes the first page on, the older pages are read again from there and
// no run falls between two pages.
import useSWRInfinite from 'swr/infinite';
import { api } from '../api/client';
import { keys } from '../api/endpoints';
import type { RunSummary } from '../api/types';

interface RunsPage {
  runs: RunSummary[];
  nextCursor: string | null;
}

export function useOlderRuns(workspaceId: string, appId: string, firstCursor: string | null | undefined) {
  const { data, error, size, setSize } = useSWRInfinite<RunsPage>(
    (index: number, previous: RunsPage | null) => {
      const cursor = index === 0 ? firstCursor : previous?.nextCursor;
      return cursor ? keys.runsAfter(workspaceId, appId, cursor) : null;
    },
    (path: string) => api<RunsPage>(path),
    // Nothing is read until the person asks for older runs; the pages asked for stay when the
    // first page moves on.
    { initialSize: 0, persistSize: true, revalidateFirstPage: false, revalidateOnFocus: false },
  );
  const pages = data ?? [];
  const last = pages.at(-1);
  const next = pages.length === 0 ? Boolean(firstCursor) : Boolean(last?.nextCursor);
  // A page asked for, there to read, and not here yet (a failed read shows its error instead).
  const loading = !error && next && size > pages.length;
  return {
    runs: pages.flatMap((p) => p.runs),
    error,
    loading,
    /** Whether a page after the loaded ones exists (the first page's cursor when none is loaded). */
    more: next && !loading,
    loadMore: () => void setSize(pages.length + 1),
  };
}
