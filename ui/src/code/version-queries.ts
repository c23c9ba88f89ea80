// The Code tab's server state. Its keys and hooks live with the tab rather than in
// api/queries.ts, which the first screen loads: only the Code tab's chunk carries them.
import useSWR, { type SWRConfiguration } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { Page, VersionDetail, VersionDiff, VersionFile, VersionSummary } from '../api/types';

const fetcher = <T>(path: string) => api<T>(path);

export const versionKeys = {
  list: (ws: string, app: string) => `${keys.app(ws, app)}/versions?limit=50`,
  version: (ws: string, app: string, n: number) => `${keys.app(ws, app)}/versions/${n}`,
  file: (ws: string, app: string, n: number, path: string) => `${versionKeys.version(ws, app, n)}/file?path=${encodeURIComponent(path)}`,
  diff: (ws: string, app: string, n: number, from: number | null) => `${versionKeys.version(ws, app, n)}/diff${from === null ? '' : `?from=${from}`}`,
};

export const useVersions = (ws: string, app: string, active: boolean) =>
  useSWR<Page<VersionSummary>>(active ? versionKeys.list(ws, app) : null, fetcher, { revalidateOnFocus: false });

// A version never changes once recorded: what was read once is not read again.
const immutable: SWRConfiguration = { revalidateOnFocus: false, revalidateIfStale: false, revalidateOnReconnect: false };

export const useVersion = (ws: string, app: string, n: number | null) =>
  useSWR<VersionDetail>(n === null ? null : versionKeys.version(ws, app, n), fetcher, immutable);
export const useVersionFile = (ws: string, app: string, n: number | null, path: string | null) =>
  useSWR<VersionFile>(n === null || path === null ? null : versionKeys.file(ws, app, n, path), fetcher, immutable);
export const useVersionDiff = (ws: string, app: string, n: number | null, from: number | null = null) =>
  useSWR<VersionDiff>(n === null ? null : versionKeys.diff(ws, app, n, from), fetcher, immutable);
