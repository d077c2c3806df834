// The one client of the API the pages share, and what they hand each
// other in memory. Kept out of App.tsx so that pages do not import the
// component that renders them.
import { createApi, type Report } from './api';

export const api = createApi();

// A report just produced by finishing is handed to the report page in
// memory, so it shows without a second request.
export const freshReports = new Map<string, Report>();

/** The interviewer in use, as the page names it. */
export function modeLabel(mode: string): string {
  if (mode === 'offline') return 'Offline practice mode';
  if (mode === 'language-model') return 'AI interviewer';
  return '';
}
