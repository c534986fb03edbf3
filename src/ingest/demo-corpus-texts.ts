// Every text a demo corpus load embeds with the bundled glossary: the fields of each valid entry of each
// demo manifest and of the Alexandria library, and the labels of their tags. What the prebuilt vectors file
// (DEMO_VECTORS_FILE) must hold; `npm run build:demo-vectors` embeds them, a unit test checks the file holds them.
import { loadAlexandriaLibrary } from '../alexandria';
import { glossFor, PRODUCT_GLOSSARY } from '../catalog/product-glossary';
import { ENTRY_VECTOR_FIELDS, entryEmbeddingTexts } from '../embedding/entry-texts';
import { tagLabelText } from '../embedding/tag-vectors';
import { ALEXANDRIA_LIBRARY_FILE, alexandriaManifest } from './alexandria-corpus';
import { demoManifestPaths } from './demo-corpus';
import { validateManifest } from './ingest-manifest';
import { readManifestFile } from './manifest-source';

export async function demoCorpusEmbeddingTexts(): Promise<string[]> {
  const manifests: Array<[unknown, string]> = [];
  for (const file of demoManifestPaths()) manifests.push([await readManifestFile(file), file]);
  manifests.push([alexandriaManifest(await loadAlexandriaLibrary(ALEXANDRIA_LIBRARY_FILE)), ALEXANDRIA_LIBRARY_FILE]);
  const texts = new Set<string>();
  for (const [manifest, origin] of manifests) {
    for (const entry of validateManifest(manifest, origin).valid) {
      const fields = entryEmbeddingTexts(entry, glossFor(entry, PRODUCT_GLOSSARY));
      for (const field of ENTRY_VECTOR_FIELDS) if (fields[field].trim() !== '') texts.add(fields[field]);
      for (const tag of entry.tags ?? []) texts.add(tagLabelText(tag) || tag);
    }
  }
  return [...texts].sort();
}
