// How a quote of an answer is shown. The server checks that every quote is
// words of the answer; shown alone, one that starts or stops inside a
// sentence reads as if the answer started or stopped there, and one cut
// inside a word reads as a typo. So a quote is widened to whole words and
// gets an ellipsis on each side where the answer goes on.

/** A quote as shown: whole words of the answer, and whether the answer
 * goes on before and after it within the sentence. */
export interface Excerpt {
  text: string;
  before: boolean;
  after: boolean;
}

const wordChar = /[\p{L}\p{N}]/u;
const isWord = (c: string | undefined) => c !== undefined && wordChar.test(c);
// A sentence ends at . ! ? or … and any closing quotation marks or brackets.
const sentenceEnd = /[.!?…]["'”’)\]]*$/;

/** The excerpt of answer that quote shows. A quote not found in the
 * answer is shown as it came. */
export function excerpt(answer: string, quote: string): Excerpt {
  let start = answer.indexOf(quote);
  // Lower case changes the length of a few letters (İ); then only exact.
  if (start < 0 && answer.toLowerCase().length === answer.length) start = answer.toLowerCase().indexOf(quote.toLowerCase());
  if (start < 0 || quote.trim() === '') return { text: quote.trim(), before: false, after: false };
  let end = start + quote.length;
  while (start > 0 && isWord(answer[start - 1]) && isWord(answer[start])) start--;
  while (end < answer.length && isWord(answer[end]) && isWord(answer[end - 1])) end++;
  // A quote that stops just before its sentence's end takes the end too.
  end += /^[.!?…]+["'”’)\]]*/.exec(answer.slice(end))?.[0].length ?? 0;
  const text = answer.slice(start, end).trim();
  const head = answer.slice(0, start).trimEnd();
  const tail = answer.slice(end).trim();
  return { text, before: head !== '' && !sentenceEnd.test(head), after: tail !== '' && !sentenceEnd.test(text) };
}

/** The excerpt as one string in quotation marks: “…the words…”. */
export function shownQuote(answer: string | undefined, quote: string): string {
  const e = answer === undefined ? { text: quote.trim(), before: false, after: false } : excerpt(answer, quote);
  return `“${e.before ? '…' : ''}${e.text}${e.after ? '…' : ''}”`;
}
