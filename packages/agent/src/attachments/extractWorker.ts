// The extraction worker (attachments/extract.ts starts it through worker/run.ts): attached PDFs
// and large text files read off the thread that answers requests, within the job's limits. The
// Electron build emits it as out/main/extractWorker.js.
import { serveJobs } from '../worker/serve';
import { runExtract, type ExtractJob } from './extractRun';

serveJobs((payload, tools) =>
  runExtract(payload as ExtractJob, { beat: (l) => tools.beat(l), progress: (p) => tools.progress(p) }),
);
