import { ApiError } from '../api/client';

/** The same error, worded for the screen that shows it when its code has an entry: the server's
 *  sentence is written for API callers, a person needs to know what to do next. */
export function explainError(error: unknown, messages: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof ApiError)) return error;
  const message = messages[error.code];
  return message ? new ApiError(error.status, error.code, message) : error;
}
