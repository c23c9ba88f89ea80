/** A server time (milliseconds since the epoch) as the reader's local date and time. */
export const when = (t: number) => new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
