import { APICallError } from 'ai';
import { errorFromBody } from './client';

/** The AI SDK puts a refused stream's raw response body in its error message; read it as the
 *  API error it is, so the notice shows the server's sentence, not its JSON. */
export function streamError(e: Error | undefined): unknown {
  if (!e || !APICallError.isInstance(e) || e.statusCode === undefined) return e;
  let body: unknown;
  try {
    body = e.responseBody ? JSON.parse(e.responseBody) : undefined;
  } catch {
    body = undefined;
  }
  return errorFromBody(e.statusCode, body);
}
