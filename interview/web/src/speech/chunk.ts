// Splitting text for speech: the server's speech endpoint takes at most 200
// characters, and short chunks start playing sooner, so text is cut at
// sentence ends into chunks of at most MAX_CHUNK characters. A sentence that
// is longer is cut at clause punctuation, then between words, and a single
// word longer than the limit is cut hard.

export const MAX_CHUNK = 190;

// A sentence ends at . ! ? or … (with closing quotes or brackets) followed by
// whitespace; "e.g. this" splits too, which costs only a short pause.
const sentenceEnd = /(?<=[.!?…]+["'”’)\]]*)\s+/u;
const clauseEnd = /(?<=[,;:—–])\s+/u;

export function chunkText(text: string, max = MAX_CHUNK): string[] {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (!clean) return [];
  const out: string[] = [];
  for (const sentence of clean.split(sentenceEnd)) {
    if (!sentence) continue;
    if (sentence.length <= max) {
      out.push(sentence);
      continue;
    }
    for (const clause of pack(sentence.split(clauseEnd), max, ' ')) {
      if (clause.length <= max) {
        out.push(clause);
        continue;
      }
      out.push(...pack(clause.split(' ').flatMap((w) => hardSplit(w, max)), max, ' '));
    }
  }
  return out;
}

// pack joins consecutive parts while the result stays within max; a part
// that is itself too long is passed through for the caller to cut further.
function pack(parts: string[], max: number, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const p of parts) {
    if (!p) continue;
    if (!cur) {
      cur = p;
    } else if (cur.length + sep.length + p.length <= max) {
      cur += sep + p;
    } else {
      out.push(cur);
      cur = p;
    }
  }
  if (cur) out.push(cur);
  return out;
}

function hardSplit(word: string, max: number): string[] {
  if (word.length <= max) return [word];
  const out: string[] = [];
  for (let i = 0; i < word.length; i += max) out.push(word.slice(i, i + max));
  return out;
}
