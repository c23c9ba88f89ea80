import { ApiError } from '../api/client';
import { useVersions } from './version-queries';
import type { App, Role } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { ChangesView } from './changes-view';
import { CodeNotice } from './code-notice';
import { FilesView } from './files-view';
import { useCodePlace } from './use-code-place';
import { useOlderVersions } from './use-older-versions';
import { useVersionsFollowBuilder } from './use-versions-follow-builder';
import { VersionPicker } from './version-picker';
import { DownloadLinks } from './download-links';
import { ViewSwitch } from './view-switch';

const viewerSentence = 'Viewers see the published app only; the code is for the app’s makers.';

/** The Code tab: the files of each version the builder's turns left, and what each turn changed. */
export function CodePage({ app, role }: { app: App; role: Role | undefined }) {
  const viewer = role === 'viewer';
  const { data, error } = useVersions(app.workspaceId, app.id, !viewer);
  const older = useOlderVersions(app.workspaceId, app.id, data?.nextCursor);
  const [place, go] = useCodePlace(app.workspaceId, app.id);
  useVersionsFollowBuilder(app.workspaceId, app.id);

  // The server refuses viewers too (403), also when the role the page knows is out of date.
  if (viewer || (error instanceof ApiError && error.status === 403)) return <CodeNotice>{viewerSentence}</CodeNotice>;
  if (error) return <ErrorNotice error={error} className="m-4" />;
  if (!data) return <div className="p-6"><Spinner label="Loading versions" /></div>;
  const firstIds = new Set(data.items.map((v) => v.number));
  // A version made while older pages are read again may be on two pages for a moment.
  const versions = [...data.items, ...older.versions.filter((v) => !firstIds.has(v.number))];
  const latest = versions[0]?.number;
  if (latest === undefined) return <CodeNotice>The first version appears after the builder’s first turn that writes files.</CodeNotice>;
  const selected = place.version ?? latest;

  return (
    <div className="flex min-h-0 flex-1 flex-col bg-white" data-testid="code-page">
      <div className="flex min-w-0 flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 md:px-4">
        <ViewSwitch view={place.view} onChange={(view) => go({ view })} />
        {place.view === 'files' ? <VersionPicker versions={versions} selected={selected} onChange={(version) => go({ version })} /> : null}
        <DownloadLinks workspaceId={app.workspaceId} appId={app.id} version={selected} />
      </div>
      {place.view === 'files' ? (
        <FilesView workspaceId={app.workspaceId} appId={app.id} version={selected} path={place.path} onOpen={(path) => go({ path, version: selected })} />
      ) : (
        <ChangesView
          workspaceId={app.workspaceId}
          appId={app.id}
          versions={versions}
          selected={selected}
          onSelect={(version) => go({ version, from: null })}
          from={place.from}
          onCompare={(from) => go({ from })}
          older={older}
        />
      )}
    </div>
  );
}
