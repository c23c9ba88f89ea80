import { navigate, paths, useSearch } from '../routing/location';

export type CodeView = 'files' | 'changes';

/** Where the Code tab is: which view, which version (null: the latest), in Files which file
 *  (null: the version's main file), in Changes which version it is compared with (null: the
 *  one before it). */
export interface CodePlace {
  view: CodeView;
  version: number | null;
  path: string | null;
  from: number | null;
}

/** The Code tab's place lives in the address (?view=changes&version=3&from=1, ?path=src%2FApp.tsx): a
 *  reload, a shared link and Back all land where the reader was. */
export function useCodePlace(workspaceId: string, appId: string): [CodePlace, (next: Partial<CodePlace>) => void] {
  const params = new URLSearchParams(useSearch());
  const numberOf = (name: string) => {
    const n = Number(params.get(name));
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  };
  const place: CodePlace = {
    view: params.get('view') === 'changes' ? 'changes' : 'files',
    version: numberOf('version'),
    path: params.get('path') || null,
    from: numberOf('from'),
  };
  const go = (next: Partial<CodePlace>) => {
    const to = { ...place, ...next };
    const q = new URLSearchParams();
    if (to.view === 'changes') q.set('view', 'changes');
    if (to.version !== null) q.set('version', String(to.version));
    if (to.view === 'files' && to.path) q.set('path', to.path);
    if (to.view === 'changes' && to.from !== null) q.set('from', String(to.from));
    const search = q.toString();
    navigate(`${paths.appTab(workspaceId, appId, 'code')}${search ? `?${search}` : ''}`);
  };
  return [place, go];
}
