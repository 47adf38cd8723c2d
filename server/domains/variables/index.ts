import { defineDomain } from '../../platform/domain';
import { variablesRouter } from './router';

export { effectiveVariables, type AppliedVariable } from './service';

const by = 'usr_0h3k9x2m4q7w1z8c';

export const variablesDomain = defineDomain({
  name: 'variables',
  routers: { variables: variablesRouter },
  events: [
    {
      type: 'variable.created',
      description: 'A variable was created in an environment of the project.',
      example: { variableId: 'var_5n2c8r0t4y6u1i3o', name: 'API_URL', environment: 'production', by },
    },
    {
      type: 'variable.updated',
      description: 'A variable was changed: `changed` names the fields (value, description, name, environment); values are not included.',
      example: { variableId: 'var_5n2c8r0t4y6u1i3o', name: 'API_URL', environment: 'production', changed: ['value'], by },
    },
    {
      type: 'variable.deleted',
      description: 'A variable was deleted.',
      example: { variableId: 'var_5n2c8r0t4y6u1i3o', name: 'API_URL', environment: 'production', by },
    },
    {
      type: 'variables.imported',
      description: 'A .env file was imported into an environment; how many names were created, updated, unchanged and skipped.',
      example: { environment: 'staging', created: 12, updated: 2, unchanged: 5, skipped: 0, by },
    },
  ],
  scopes: ['variables'],
  panel: [{ segment: 'variables', label: 'Variables', icon: 'folder', section: 'resources', order: 35 }],
});
