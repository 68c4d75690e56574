/** The GP service's tasks and their descriptions (the tables the forms are generated from). */
import { listTasks, taskInfo } from "../api/gp.js";
import type { RestClient } from "../api/client.js";
import type { TaskInfo } from "../api/types.js";
import { type Async, useAsync } from "../app/useAsync.js";

export function useTasks(api: RestClient, key: string): Async<TaskInfo[]> {
  return useAsync(key, async () => {
    const { tasks } = await listTasks(api);
    return Promise.all(tasks.map((t) => taskInfo(api, t)));
  });
}
