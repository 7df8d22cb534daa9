/**
 * The window a provider stated in a context-limit error, smaller than the profile's (issue 22):
 * the runtime works with it until the user undoes it in the profile form.
 */
export const V15_LEARNED_WINDOW = `ALTER TABLE provider_profiles ADD COLUMN learned_context_window INTEGER;`;
