/**
 * The time-profile view: GET /api/v1/time-profiles over its default window (the last SITE_PROFILE_DAYS whole UTC
 * days) for the whole grid, narrowed by region, target and variant. Its days change once a day, when a region writes
 * its daily rollups (and their profile rows): the regions mark it then.
 */
import { METHOD_VERSION } from '../../../shared/constants.ts';
import { SITE_PROFILE_DAYS } from '../../../shared/config/read-limits.ts';
import { pairLists } from '../api/filters.ts';
import { profileDays, timeProfilesDocument } from '../api/profiles.ts';
import { profilesIn } from '../db/profiles.ts';
import { onlyParams, pairFilter, type ViewMatcher, type ViewPart } from './view-part.ts';

const LIST = { field: 'rows', keys: ['region', 'target', 'prompt_variant'] };
const DEFAULT_WINDOW = `${SITE_PROFILE_DAYS}d`;

const matchProfiles: ViewMatcher = (q) =>
  onlyParams(q, ['window', 'region', 'target', 'variant']) && (q.get('window') ?? DEFAULT_WINDOW) === DEFAULT_WINDOW
    ? { view: 'time-profiles', filter: pairFilter(LIST, pairLists(q)) }
    : null;

export const profileViews: ViewPart = {
  name: 'profiles',
  settle: 'rollups',
  routes: { '/api/v1/time-profiles': matchProfiles },
  async build({ db, now }) {
    // As the route reads its default window: the SITE_PROFILE_DAYS whole days before today.
    const { from, to } = profileDays(now);
    const rows = await profilesIn(db, { fromDay: from, toDay: to, methodVersion: METHOD_VERSION });
    return [{ name: 'time-profiles', doc: timeProfilesDocument(rows, from, to), list: LIST }];
  },
};
