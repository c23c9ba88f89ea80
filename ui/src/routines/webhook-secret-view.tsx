import type { WebhookSecret } from '../api/types';

/** The webhook's URL and secret, and how a sender signs a request: shown to an admin once asked. */
export function WebhookSecretView({ secret }: { secret: WebhookSecret }) {
  return (
    <div className="space-y-1 rounded-md bg-zinc-50 p-2 text-xs" data-testid="webhook-secret">
      <p>
        POST JSON to <code className="break-all">{secret.url}</code> with the header <code>{secret.header}: t=&lt;Unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of "t.body"&gt;</code>.
      </p>
      <p>
        Secret: <code className="break-all select-all" data-testid="webhook-secret-value">{secret.secret}</code>
      </p>
    </div>
  );
}
