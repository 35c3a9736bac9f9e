/**
 * Where each region × target × variant was answered and how far its vendor's timing claims held, over the last 24
 * whole hours (GET /api/v1/served-by and /fidelity, from their views).
 */
import type { FidelityDoc, ServedByDoc } from '../../../../shared/api-types.ts';
import type { SitePart } from './part.ts';

export const placesPart: SitePart = {
  name: 'places',
  async collect({ api }) {
    return {
      served: await api.view('served_by', 'servedBy').as<ServedByDoc>(),
      fidelity: await api.view('fidelity', 'fidelity').as<FidelityDoc>(),
    };
  },
  empty() {
    return { served: null, fidelity: null };
  },
  fallback: { served: null, fidelity: null },
};
