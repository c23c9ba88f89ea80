import { links } from '../api/endpoints';

const link = 'rounded-md px-2 py-1 text-xs font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900';

/** Take the app away: the version shown as a zip, and every version as a git bundle
 *  (`git clone app.bundle`). Plain links: the browser downloads them with the session cookie. */
export function DownloadLinks({ workspaceId, appId, version }: { workspaceId: string; appId: string; version: number }) {
  return (
    <div className="ml-auto flex items-center gap-1" data-testid="downloads">
      <a className={link} href={links.versionZip(workspaceId, appId, version)} download data-testid="download-zip">
        Download version {version} (.zip)
      </a>
      <a className={link} href={links.historyBundle(workspaceId, appId)} download title="Every version as a git commit: git clone app.bundle" data-testid="download-bundle">
        History (git bundle)
      </a>
    </div>
  );
}
