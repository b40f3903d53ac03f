import { Type, type Static } from 'typebox';

export const PermissionSchema = Type.Object(
  {
    name: Type.String({ description: 'The permission, which is also its OAuth2 scope.' }),
    description: Type.String({ description: 'What it allows, in plain words (as on the consent page).' }),
    granted: Type.Boolean({ description: 'Whether the calling access token has it now.' }),
  },
  { $id: 'Permission', description: 'A permission the service defines.' },
);
export type PermissionView = Static<typeof PermissionSchema>;

export const PermissionParams = Type.Object({ permission: Type.String({ maxLength: 100 }) });
