export function projectPath(projectId: string, segment = ''): string {
  return segment ? `/projects/${projectId}/${segment}` : `/projects/${projectId}`;
}
