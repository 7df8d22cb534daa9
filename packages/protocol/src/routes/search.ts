import * as z from 'zod';
import { SearchHitSchema } from '../search';
import type { RouteMap } from './define';

export const searchRoutes = {
  /** Full-text search over the user's and the assistant's messages of every session. */
  'search.messages': {
    input: z.object({
      query: z.string().trim().min(1).max(500),
      limit: z.number().int().min(1).max(200).optional(),
    }),
    output: z.array(SearchHitSchema),
  },
} satisfies RouteMap;
