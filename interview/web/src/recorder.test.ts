import { describe, expect, it } from 'vitest';
import { pickRecordingType } from './recorder';

describe('pickRecordingType', () => {
  const browsers: { name: string; supports: string[]; want: string | null }[] = [
    { name: 'Chrome', supports: ['audio/webm;codecs=opus', 'audio/webm'], want: 'audio/webm;codecs=opus' },
    { name: 'Firefox', supports: ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus'], want: 'audio/webm;codecs=opus' },
    { name: 'Safari', supports: ['audio/mp4'], want: 'audio/mp4' },
    { name: 'webm without opus', supports: ['audio/webm'], want: 'audio/webm' },
    { name: 'nothing', supports: [], want: null },
  ];
  for (const b of browsers) {
    it(b.name, () => {
      expect(pickRecordingType((t) => b.supports.includes(t))?.mimeType ?? null).toBe(b.want);
    });
  }
  it('names the file for the chosen container', () => {
    expect(pickRecordingType((t) => t === 'audio/mp4')?.extension).toBe('mp4');
  });
});
