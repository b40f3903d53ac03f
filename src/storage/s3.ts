// The bucket store: each key is an object under a prefix in an S3-compatible bucket, shared by
// every node (docs/design.md "Storage"). Uploads stream from the local file, in parts of 8 MiB
// past that size (lib-storage), so no file is ever whole in memory. S3 has no rename and no
// hard link: `move` is a copy then a delete, `place` an upload when no object has the key (an
// object is written whole or not at all, so a reader never sees half of one).
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { MissingObject, type BlobStore, type ByteRange, type ListedObject, type ObjectInfo } from './store.ts';

export interface S3Settings {
  endpoint: string | undefined;
  bucket: string;
  prefix: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

const PART_SIZE = 8 * 1024 * 1024;

const notFound = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.$metadata.httpStatusCode === 404 || error.name === 'NoSuchKey' || error.name === 'NotFound');

export class S3Store implements BlobStore {
  readonly kind = 's3';
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.prefix = settings.prefix === '' || settings.prefix.endsWith('/') ? settings.prefix : `${settings.prefix}/`;
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: some S3-compatible servers cannot read the
      // chunked checksum trailers the client sends by default, nor return checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private name(key: string): string {
    return `${this.prefix}${key}`;
  }

  localPath(): undefined {
    return undefined;
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.name(key) }));
      return { size: out.ContentLength ?? 0, modifiedMs: out.LastModified?.getTime() ?? 0 };
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.name(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      return out.Body as Readable;
    } catch (error) {
      if (notFound(error)) throw new MissingObject(key);
      throw error;
    }
  }

  async upload(key: string, path: string): Promise<void> {
    const { size } = await stat(path);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.name(key), Body: createReadStream(path), ContentLength: size },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async place(key: string, path: string): Promise<'placed' | 'present'> {
    if (await this.head(key)) return 'present';
    await this.upload(key, path);
    return 'placed';
  }

  async adopt(key: string, path: string): Promise<void> {
    if (!(await this.head(key))) await this.upload(key, path);
    await rm(path, { force: true });
  }

  async move(from: string, to: string): Promise<boolean> {
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.name(to),
          CopySource: `${this.bucket}/${this.name(from).split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
    await this.remove(from);
    return true;
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.name(key) }));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.name(prefix), ContinuationToken: token }),
      );
      for (const object of out.Contents ?? []) {
        if (!object.Key) continue;
        yield {
          key: object.Key.slice(this.prefix.length),
          size: object.Size ?? 0,
          modifiedMs: object.LastModified?.getTime() ?? 0,
        };
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  close(): void {
    this.client.destroy();
  }
}
