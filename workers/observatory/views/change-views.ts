/**
 * The view of GET /api/v1/changes: the TTFA changes of this week against the four before over the whole grid,
 * narrowed by region, target and variant line by line (each series is judged on its own days). Built from one read
 * of the 35 days' daily rows; marked when a region rolls up a day (the days it compares change only then).
 */
import type { ViewList } from '../../../shared/views/view-text.ts';
import { changeRows, changesDocument } from '../api/changes.ts';
import { pairLists } from '../api/filters.ts';
import { keysFirst, onlyParams, pairFilter, type ViewMatcher, type ViewPart } from './view-part.ts';

export const CHANGES_LIST: ViewList = { field: 'changes', keys: ['region', 'target', 'prompt_variant'] };
export const CHANGES_VIEW = 'changes';

const matchChanges: ViewMatcher = (q) =>
  onlyParams(q, ['region', 'target', 'variant']) ? { view: CHANGES_VIEW, filter: pairFilter(CHANGES_LIST, pairLists(q)) } : null;

export const changeViews: ViewPart = {
  name: 'changes',
  settle: 'rollups',
  routes: { '/api/v1/changes': matchChanges },
  async build({ db, now }) {
    const doc = changesDocument(now, await changeRows(db, now, {}));
    return [{ name: CHANGES_VIEW, doc: { ...doc, changes: doc.changes.map((c) => keysFirst(c, CHANGES_LIST.keys)) }, list: CHANGES_LIST }];
  },
};
