// The search worker (tools/search.ts starts it through worker/run.ts): grep and glob off the
// thread that answers requests. The Electron build emits it as out/main/searchWorker.js.
import { serveJobs } from '../worker/serve';
import { runSearch, type SearchJob } from './searchRun';

serveJobs((payload, tools) => runSearch(payload as SearchJob, (label) => tools.beat(label)));
