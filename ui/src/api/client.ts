// One fetch wrapper for every API call: JSON in, JSON out, and the design notes' error body
// ({"error": {"code", "message"}}) turned into an ApiError the page can explain.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Reads past every HTTP cache: the resume rules' "no-store check". */
  noStore?: boolean;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const init: RequestInit = {
    method: options.method ?? 'GET',
    headers: options.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    credentials: 'same-origin',
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  if (options.signal) init.signal = options.signal;
  if (options.noStore) init.cache = 'no-store';
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The platform server cannot be reached. Is platform-web running?');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError(res.status, 'invalid_reply', `The server answered ${res.status} with something that is not JSON.`);
    }
  }
  if (!res.ok) throw errorFromBody(res.status, parsed);
  return parsed as T;
}

export function errorFromBody(status: number, body: unknown): ApiError {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof err?.code === 'string' ? err.code : `http_${status}`;
  const message = typeof err?.message === 'string' ? err.message : `The server answered ${status}.`;
  return new ApiError(status, code, message);
}
