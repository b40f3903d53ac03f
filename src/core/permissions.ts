// The permission catalogue: every OAuth2 scope the service defines (docs/api.md "Permissions").
// The one source for the OAuth server's scopes, the consent page, GET /permissions, GET /info
// and the OpenAPI security scheme.

export const PERMISSIONS = {
  get_private_scope: 'Read your private posts, media, locations and private views',
  create_post: 'Create posts and send them to your service groups',
  get_services: 'See your connected services and service groups',
  create_service: 'Connect new services',
  delete_service: 'Disconnect services',
  manage_groups: 'Create and delete service groups and change their members',
  upload_media: 'Upload photos, videos and audio',
  write_locations: 'Add to your location history',
  get_settings: 'Read your settings',
  update_settings: 'Change your settings',
  get_views: 'See your views',
  manage_views: 'Create, change and delete your views',
  export: 'Download a copy of everything in your account, private items included',
} as const satisfies Record<string, string>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

export function isPermission(name: string): name is Permission {
  return Object.hasOwn(PERMISSIONS, name);
}
