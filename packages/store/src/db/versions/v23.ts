/**
 * Version 23 (issue 36): the window a local server said it runs the profile's model with: Ollama's num_ctx,
 * LM Studio's loaded context length, llama.cpp's n_ctx, vLLM's max_model_len, as JSON
 * (ServerWindowSchema), read when the profile is saved.
 */
export const V23_SERVER_WINDOW = `ALTER TABLE provider_profiles ADD COLUMN server_window TEXT;`;
