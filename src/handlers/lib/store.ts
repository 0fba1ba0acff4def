// The example server's in-memory task store, shared by its handlers.
import type { Task } from "../../../generated/types.gen.js";

export const startedAt = Date.now();
const tasks = new Map<string, Task>();
let nextId = 1;

export function createTask(fields: Omit<Task, "id" | "status" | "tags"> & { tags?: string[] }): Task {
  const task: Task = { ...fields, id: `T-${nextId++}`, status: "open", tags: fields.tags ?? [] };
  tasks.set(task.id, task);
  return task;
}

export function getTask(id: string): Task | undefined {
  return tasks.get(id);
}

export function allTasks(): Task[] {
  return [...tasks.values()].reverse();
}

export function deleteTask(id: string): boolean {
  return tasks.delete(id);
}

export function taskCount(): number {
  return tasks.size;
}

createTask({ title: "Try the example server", tags: ["example"] });
