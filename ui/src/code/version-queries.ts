// The Code tab's server state. Its hooks live with the tab rather than in api/queries.ts,
// which the first screen loads: only the Code tab's chunk carries them (the URLs, as every
// other, are api/endpoints.ts's).
import useSWR, { type SWRConfiguration } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/endpoints';
import type { Page, VersionDetail, VersionDiff, VersionFile, VersionSummary } from '../api/types';

const fetcher = <T>(path: string) => api<T>(path);

export const useVersions = (ws: string, app: string, active: boolean) =>
  useSWR<Page<VersionSummary>>(active ? keys.versions(ws, app) : null, fetcher, { revalidateOnFocus: false });

// A version never changes once recorded: what was read once is not read again.
const immutable: SWRConfiguration = { revalidateOnFocus: false, revalidateIfStale: false, revalidateOnReconnect: false };

export const useVersion = (ws: string, app: string, n: number | null) =>
  useSWR<VersionDetail>(n === null ? null : keys.version(ws, app, n), fetcher, immutable);
export const useVersionFile = (ws: string, app: string, n: number | null, path: string | null) =>
  useSWR<VersionFile>(n === null || path === null ? null : keys.versionFile(ws, app, n, path), fetcher, immutable);
export const useVersionDiff = (ws: string, app: string, n: number | null, from: number | null = null) =>
  useSWR<VersionDiff>(n === null ? null : keys.versionDiff(ws, app, n, from), fetcher, immutable);
