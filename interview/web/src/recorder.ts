// Recording an answer. The container is chosen with
// MediaRecorder.isTypeSupported: WebM/Opus where the browser has it (Chrome,
// Firefox, Edge), MP4/AAC on Safari, which records only MP4.

export interface RecordingType {
  mimeType: string;
  extension: string;
}

const preferred: RecordingType[] = [
  { mimeType: 'audio/webm;codecs=opus', extension: 'webm' },
  { mimeType: 'audio/mp4', extension: 'mp4' },
  { mimeType: 'audio/webm', extension: 'webm' },
  { mimeType: 'audio/ogg;codecs=opus', extension: 'ogg' },
];

export function pickRecordingType(isTypeSupported: (t: string) => boolean): RecordingType | null {
  return preferred.find((t) => isTypeSupported(t.mimeType)) ?? null;
}

export function canRecord(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof MediaRecorder !== 'undefined' &&
    !!navigator.mediaDevices?.getUserMedia &&
    pickRecordingType((t) => MediaRecorder.isTypeSupported(t)) !== null
  );
}

export interface Recording {
  stop(): Promise<{ blob: Blob; filename: string }>;
  cancel(): void;
}

export async function startRecording(): Promise<Recording> {
  const type = pickRecordingType((t) => MediaRecorder.isTypeSupported(t));
  if (!type) throw new Error('This browser cannot record audio.');
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const rec = new MediaRecorder(stream, { mimeType: type.mimeType });
  const parts: Blob[] = [];
  rec.ondataavailable = (e) => {
    if (e.data.size > 0) parts.push(e.data);
  };
  const release = () => stream.getTracks().forEach((t) => t.stop());
  rec.start();
  return {
    stop() {
      return new Promise((resolve, reject) => {
        rec.onstop = () => {
          release();
          resolve({ blob: new Blob(parts, { type: type.mimeType }), filename: `answer.${type.extension}` });
        };
        rec.onerror = () => {
          release();
          reject(new Error('Recording failed.'));
        };
        rec.stop();
      });
    },
    cancel() {
      rec.onstop = null;
      if (rec.state !== 'inactive') rec.stop();
      release();
    },
  };
}
