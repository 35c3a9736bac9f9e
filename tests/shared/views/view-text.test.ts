/**
 * A view's stored text (shared/views/view-text.ts): the answer as JSON, its list one element a line, and a narrowed
 * answer made by keeping lines, which must equal narrowing the parsed answer, whatever the rows hold.
 */
import { describe, expect, it } from 'vitest';
import { filterViewText, leadingKeys, viewText, ViewTextError } from '../../../shared/views/view-text.ts';
import { keysFirst, pairFilter } from '../../../shared/views/view-match.ts';

const LIST = { field: 'groups', keys: ['region', 'target', 'prompt_variant'] };
const doc = (groups: unknown[]) => ({ metric: 'ttft_ms', window: { from: 'a', to: 'b' }, note: 'a "quoted"\nline', groups });
const row = (region: string, target: string, extra: Record<string, unknown> = {}) =>
  keysFirst({ n: 3, p50: 1.5, split_source: null, ...extra, region, target, prompt_variant: 'chat' }, LIST.keys);

describe('a view text', () => {
  const rows = [
    row('apac', 'a', { label: 'a, "b" {c}\n}' }),
    row('apac', 'b'),
    row('weur', 'a', { nested: { region: 'weur' } }),
    row('weur', 'c', { text: '\\"' }),
  ];
  const text = viewText(doc(rows), LIST);

  it('is the answer itself, one element a line', () => {
    expect(JSON.parse(text)).toEqual(doc(rows));
    expect(text.split('\n')).toHaveLength(rows.length + 2);
  });

  it.each([
    ['one region', { regions: ['weur'] }],
    ['two targets', { targets: ['a', 'c'] }],
    ['a region and a target', { regions: ['apac'], targets: ['b'] }],
    ['a variant', { variants: ['chat'] }],
    ['nothing that exists', { regions: ['oc'] }],
  ])('narrowed to %s equals the parsed answer narrowed', (_, lists) => {
    const filter = pairFilter(LIST, lists)!;
    const narrowed = filterViewText(text, filter.keys, filter.keep);
    const keep = (r: (typeof rows)[number]) =>
      (!('regions' in lists) || lists.regions!.includes(r.region)) && (!('targets' in lists) || lists.targets!.includes(r.target));
    expect(JSON.parse(narrowed)).toEqual(doc(rows.filter(keep)));
  });

  it('keeps its shape with an empty list', () => {
    const empty = viewText(doc([]), LIST);
    expect(JSON.parse(empty)).toEqual(doc([]));
    const filter = pairFilter(LIST, { regions: ['weur'] })!;
    expect(JSON.parse(filterViewText(empty, filter.keys, filter.keep))).toEqual(doc([]));
  });

  it('refuses an element that does not start with its keys, or a key that is not a plain string', () => {
    expect(() => viewText(doc([{ n: 1, region: 'weur', target: 'a', prompt_variant: 'chat' }]), LIST)).toThrow(ViewTextError);
    expect(() => viewText(doc([{ region: 'we\\ur', target: 'a', prompt_variant: 'chat' }]), LIST)).toThrow(ViewTextError);
    expect(() => viewText(doc([{ region: null, target: 'a', prompt_variant: 'chat' }]), LIST)).toThrow(ViewTextError);
    expect(() => viewText({ groups: 'no list' }, LIST)).toThrow(ViewTextError);
  });

  it("reads a line's leading keys and nothing past them", () => {
    expect(leadingKeys('{"region":"apac","target":"a","n":1}', 2)).toEqual(['apac', 'a']);
    expect(leadingKeys('{"region":"apac"}', 1)).toEqual(['apac']);
    expect(leadingKeys('{"region":"apac"}', 2)).toBeNull();
    expect(leadingKeys('{"region":1,"target":"a"}', 1)).toBeNull();
    expect(leadingKeys('["region","apac"]', 1)).toBeNull();
  });

  it('refuses to narrow what is not a view text', () => {
    expect(() => filterViewText('{"groups":[]}', 1, () => true)).toThrow(ViewTextError);
    expect(() => filterViewText('{"groups":[\n{"n":1}\n]}', 1, () => true)).toThrow(ViewTextError);
  });
});
