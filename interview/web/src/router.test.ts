import { describe, expect, it } from 'vitest';
import { match, shownPage, titleFor } from './router';

describe('match', () => {
  it('reads ids and tokens, and a malformed escape is a missing page, not a crash', () => {
    expect(match('/interview/a%2Fb')).toEqual({ page: 'interview', id: 'a/b' });
    expect(match('/report/x')).toEqual({ page: 'report', id: 'x' });
    expect(match('/interview/%E0')).toEqual({ page: 'notfound' });
    expect(match('/report/%E0%A4%A')).toEqual({ page: 'notfound' });
    expect(match('/shared/%E0')).toEqual({ page: 'notfound' });
  });
});

describe('titles', () => {
  it('name the page shown: signed out, that is the sign-in page', () => {
    expect(titleFor(shownPage(match('/'), false))).toBe('Sign in · Interview practice');
    expect(titleFor(shownPage(match('/history'), false))).toBe('Sign in · Interview practice');
    expect(titleFor(shownPage(match('/'), true))).toBe('New interview · Interview practice');
    expect(titleFor(shownPage(match('/signin'), true))).toBe('New interview · Interview practice');
    expect(titleFor(shownPage(match('/shared/tok'), false))).toBe('Shared interview report · Interview practice');
  });
});
