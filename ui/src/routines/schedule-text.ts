const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A few common cron shapes in words ("Weekdays at 08:00"); anything else as the expression. */
export function scheduleText(cron: string): string {
  const [min = '', hour = '', dom = '', mon = '', dow = ''] = cron.split(' ');
  const at = /^\d+$/.test(min) && /^\d+$/.test(hour) ? `at ${hour.padStart(2, '0')}:${min.padStart(2, '0')}` : null;
  if (cron === '* * * * *') return 'Every minute';
  if (/^\*\/\d+$/.test(min) && hour === '*' && dom === '*' && mon === '*' && dow === '*') return `Every ${min.slice(2)} minutes`;
  if (at && dom === '*' && mon === '*') {
    if (dow === '*') return `Every day ${at}`;
    if (dow === '1-5') return `Weekdays ${at}`;
    if (/^[0-6]$/.test(dow)) return `Every ${weekdays[Number(dow)]} ${at}`;
  }
  return `cron ${cron}`;
}
