/** Small inline icons (no icon font: nothing extra to download). Decorative: hidden from screen readers. */
const paths: Record<string, string> = {
  home: 'M3 11.5 12 4l9 7.5V20a1 1 0 0 1-1 1h-5v-6h-6v6H4a1 1 0 0 1-1-1z',
  market: 'M4 19V9m5 10V5m5 14v-7m5 7V8',
  trade: 'M4 8h13l-3-3M20 16H7l3 3',
  contract: 'M4 17l5-5 4 4 7-8M15 8h5v5',
  assets: 'M3 7h18v12H3zM3 7l2-3h14l2 3M16 13h2',
  back: 'M15 5l-7 7 7 7',
  menu: 'M4 6h16M4 12h16M4 18h16',
  close: 'M6 6l12 12M18 6 6 18',
  chevron: 'M9 5l7 7-7 7',
  bell: 'M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20h4',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-8 9a8 8 0 0 1 16 0',
  copy: 'M8 8h11v11H8zM5 16V5h11',
  check: 'M5 12l5 5 9-10',
  grid: 'M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z',
};

export function Icon({ name, size = 22 }: { name: keyof typeof paths | string; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d={paths[name] ?? paths.grid} />
    </svg>
  );
}
