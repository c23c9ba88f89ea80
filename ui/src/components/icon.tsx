// A handful of line icons drawn here (no icon font: headless and minimal systems lack emoji
// glyphs, which render as empty boxes).
const shapes = {
  file: 'M6 3h8l4 4v14H6z M14 3v4h4',
  folder: 'M3 6h6l2 2h10v11H3z',
  search: 'M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13z M15.5 15.5L21 21',
  terminal: 'M4 5h16v14H4z M7 9l3 3l-3 3 M12 15h5',
  pencil: 'M4 20l1-4L16 5l3 3L8 19z M14 7l3 3',
  globe: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z M3 12h18 M12 3c3 3 3 15 0 18 M12 3c-3 3-3 15 0 18',
  gear: 'M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6z M12 2v3 M12 19v3 M2 12h3 M19 12h3 M5 5l2 2 M17 17l2 2 M5 19l2-2 M17 7l2-2',
  plug: 'M9 3v5 M15 3v5 M6 8h12v3a6 6 0 0 1-12 0z M12 17v4',
  check: 'M5 12l4 4l10-10',
  cross: 'M6 6l12 12 M18 6L6 18',
  chevron: 'M9 6l6 6l-6 6',
  menu: 'M4 6h16 M4 12h16 M4 18h16',
  package: 'M4 7.5l8-4.5l8 4.5v9l-8 4.5l-8-4.5z M4 7.5l8 4.5l8-4.5 M12 12v9',
} as const;

export type IconName = keyof typeof shapes;

export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden className={className ?? 'size-4'}>
      <path d={shapes[name]} />
    </svg>
  );
}
