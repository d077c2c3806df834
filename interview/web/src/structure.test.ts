// Rules of the client's layout, read from its source: no import cycle
// (App.tsx is imported by nothing but main.tsx), one place for a lost
// session, one way to load a page's data.
import { describe, expect, it } from 'vitest';

// Every source file's text, by its path from src/ ("api/client.ts").
const raw = import.meta.glob(['./**/*.ts', './**/*.tsx', '!./**/*.test.ts', '!./**/*.test.tsx'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;
const text = new Map(Object.entries(raw).map(([k, v]) => [k.slice(2), v]));
const files = [...text.keys()];

// A relative import of from, as a path from src/.
function resolve(from: string, spec: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const p of spec.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.') parts.push(p);
  }
  return parts.join('/');
}

// The files f imports (relative imports only; type-only imports count too:
// they tie the modules together just the same for a reader).
function importsOf(f: string): string[] {
  const out: string[] = [];
  for (const m of text.get(f)!.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']*)'/gm)) {
    const base = resolve(f, m[1]);
    const hit = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => text.has(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** Every import cycle, as the files around it. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('the web client layout', () => {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('finds a cycle where there is one', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cycles(new Map([['a', ['b']], ['b', []], ['c', ['a', 'b']]]))).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(cycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  it('imports App.tsx only from main.tsx', () => {
    const importers = files.filter((f) => graph.get(f)!.some((g) => g === 'App.tsx'));
    expect(importers).toEqual(['main.tsx']);
  });

  it('handles a 401 only in the API client', () => {
    const where = files.filter((f) => /status\s*===\s*401|onAuthLost/.test(text.get(f)!));
    expect(where).toEqual(['api/client.ts']);
  });

  it('reads server JSON only in api/decode.ts', () => {
    const where = files.filter((f) => /\.json\(\)/.test(text.get(f)!));
    expect(where).toEqual(['api/client.ts']);
    // client.ts hands every body it parses to decode.ts.
    expect(text.get('api/client.ts')).toMatch(/decode\./);
  });

  it('loads page data only through useLoad', () => {
    // A page or component that starts a load in an effect of its own would
    // call the API inside useEffect; with useLoad none does.
    const where = files.filter((f) => /useEffect\(\s*\(\)\s*=>\s*\{[^}]*\bapi\s*\.\s*(session|shared|history|active|config|me)\(/.test(text.get(f)!));
    expect(where).toEqual([]);
    const loaders = files.filter((f) => /\buseLoad\(/.test(text.get(f)!)).sort();
    expect(loaders).toEqual(['App.tsx', 'components/ActiveInterviews.tsx', 'pages/History.tsx', 'pages/Interview.tsx', 'pages/Report.tsx', 'pages/Shared.tsx']);
  });
});
