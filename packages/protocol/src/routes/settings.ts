import * as z from 'zod';
import { SettingsPatchSchema, SettingsSchema } from '../settings';
import { noInput, type RouteMap } from './define';

export const settingsRoutes = {
  'settings.get': { input: noInput(), output: SettingsSchema },
  /** A deep-partial patch; the answer is the effective settings after it. */
  'settings.set': { input: z.object({ patch: SettingsPatchSchema }), output: SettingsSchema },
} satisfies RouteMap;
