import { describe, expect, it } from 'vitest';
import { chunkText, MAX_CHUNK } from './chunk';

describe('chunkText', () => {
  const cases: { name: string; text: string; want: string[] }[] = [
    { name: 'empty', text: '', want: [] },
    { name: 'only whitespace', text: ' \n\t ', want: [] },
    { name: 'one sentence', text: 'Tell me about yourself.', want: ['Tell me about yourself.'] },
    {
      name: 'sentence per chunk',
      text: 'Welcome, Ada. First question: what is a goroutine? Take your time!',
      want: ['Welcome, Ada.', 'First question: what is a goroutine?', 'Take your time!'],
    },
    { name: 'whitespace is normalised', text: 'One.\n\n  Two.', want: ['One.', 'Two.'] },
    { name: 'closing quote stays with its sentence', text: 'He said "stop." Then left.', want: ['He said "stop."', 'Then left.'] },
    { name: 'no final punctuation', text: 'Describe a project', want: ['Describe a project'] },
  ];
  for (const c of cases) {
    it(c.name, () => expect(chunkText(c.text)).toEqual(c.want));
  }

  it('cuts a long sentence at clauses, each within the limit', () => {
    const clause = 'this clause has some words in it to make it long enough';
    const sentence = Array(8).fill(clause).join(', ') + '.';
    expect(sentence.length).toBeGreaterThan(MAX_CHUNK);
    const chunks = chunkText(sentence);
    expect(chunks.length).toBeGreaterThan(1);
    for (const ch of chunks) expect(ch.length).toBeLessThanOrEqual(MAX_CHUNK);
    // Cut only after a comma: every chunk but the last ends a clause.
    for (const ch of chunks.slice(0, -1)) expect(ch.endsWith(',')).toBe(true);
    expect(chunks.join(' ')).toBe(sentence);
  });

  it('cuts a long run without punctuation between words', () => {
    const sentence = Array(60).fill('word').join(' ');
    const chunks = chunkText(sentence);
    for (const ch of chunks) {
      expect(ch.length).toBeLessThanOrEqual(MAX_CHUNK);
      expect(ch.startsWith(' ') || ch.endsWith(' ')).toBe(false);
    }
    expect(chunks.join(' ')).toBe(sentence);
  });

  it('cuts a single overlong word hard', () => {
    const word = 'x'.repeat(400);
    const chunks = chunkText(word);
    expect(chunks.map((c) => c.length)).toEqual([190, 190, 20]);
    expect(chunks.join('')).toBe(word);
  });

  it('keeps every character of a long mixed text, all chunks within the limit', () => {
    const text =
      'In distributed systems, consensus algorithms such as Raft and Paxos let a group of machines agree on a sequence of values even when some of them fail; explain how leader election works in Raft, what happens when the leader crashes during a write, and how the log is repaired afterwards. Then compare it with Paxos.';
    const chunks = chunkText(text);
    for (const ch of chunks) expect(ch.length).toBeLessThanOrEqual(MAX_CHUNK);
    expect(chunks.join(' ')).toBe(text);
  });
});
