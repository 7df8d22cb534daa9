// `--import` this after tsx: the turn trace's module hooks (traceHooks.mjs).
import { register } from 'node:module';

register('./traceHooks.mjs', import.meta.url);
