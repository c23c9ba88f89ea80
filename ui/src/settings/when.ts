/** A server time (milliseconds since the epoch, or an ISO string) as the reader's local date and time. */
export const when = (t: number | string) => new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
