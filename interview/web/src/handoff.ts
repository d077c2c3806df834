// What one page hands the next in memory: a report just produced by
// finishing goes to the report page, so it shows without a second request.
import type { Report } from './api/types';

export const freshReports = new Map<string, Report>();
