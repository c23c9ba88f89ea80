import { useRef, useState } from 'react';
import type { AppPreview } from '../api/types';
import type { Scope } from './bridge-handlers';
import { useParentBridge } from './use-parent-bridge';

// The app runs on an origin of its own; allow-same-origin gives it that origin (its storage,
// its module scripts), which is safe only because it is not the builder's. Never top
// navigation: the app cannot take the page away.
const sandbox = 'allow-scripts allow-same-origin allow-forms allow-modals allow-popups allow-downloads';
const sandboxSameOrigin = 'allow-scripts allow-forms allow-modals allow-popups allow-downloads';

/** One app build in a sandboxed frame with its parent bridge (`scope`: whose data and agents).
 *  Mount it keyed by the build (and a reload count): every read of the app signs a fresh URL, and
 *  a new URL for the same build must not reload the app under the person using it. */
export function PreviewFrame({ preview, scope, workspaceId, appId, title, className }: {
  preview: AppPreview;
  scope: Scope;
  workspaceId: string;
  appId: string;
  title: string;
  className?: string;
}) {
  const [url] = useState(preview.url);
  const origin = new URL(url).origin;
  const foreign = origin !== location.origin;
  const frame = useRef<HTMLIFrameElement>(null);
  // A frame on the page's own origin gets no bridge: it could be anything of ours.
  useParentBridge(frame, foreign ? origin : null, workspaceId, appId, scope);
  return (
    <iframe
      ref={frame}
      title={title}
      // The app learns where its parent is from the fragment (never sent to a server).
      src={`${url}#parent=${encodeURIComponent(location.origin)}`}
      sandbox={foreign ? sandbox : sandboxSameOrigin}
      referrerPolicy="no-referrer"
      className={className}
      data-testid="preview-frame"
    />
  );
}
