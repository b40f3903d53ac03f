import { Type, type Static } from 'typebox';
import { USERNAME_PATTERN } from './users.rules.ts';

export const UserProfileSchema = Type.Object(
  {
    username: Type.String({
      pattern: USERNAME_PATTERN,
      description:
        '2 to 30 ASCII letters, digits or underscores, starting with a letter or digit; unique regardless of case.',
    }),
    display_name: Type.String(),
    bio: Type.String(),
    created_at: Type.Number({ description: 'When the account was created, Unix epoch seconds.' }),
    public_counts: Type.Object(
      { posts: Type.Integer(), media: Type.Integer(), locations: Type.Integer() },
      { description: 'How many public posts, media and locations the user has.' },
    ),
    feeds: Type.Object(
      {
        atom: Type.String({ description: 'Atom feed of the public posts.' }),
        json_feed: Type.String({ description: 'JSON Feed of the public posts.' }),
      },
      { description: 'Where a feed reader can follow the public posts.' },
    ),
  },
  { $id: 'UserProfile', description: 'A public profile.' },
);
/** The public profile (docs/api.md "Objects": user). */
export type PublicProfile = Static<typeof UserProfileSchema>;

export const UsernameParams = Type.Object({ username: Type.String({ maxLength: 100 }) });
