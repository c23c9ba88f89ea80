/** The host a custom tool calls. Placeholders ({{secrets.KEY}}, {{city}}) stand for any value,
 *  so they are replaced before parsing; a URL that still does not parse shows no host. */
export function endpointHost(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url.replace(/\{\{[^}]*\}\}/g, 'placeholder')).host;
  } catch {
    return '';
  }
}
