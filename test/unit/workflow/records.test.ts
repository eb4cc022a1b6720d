import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { listRecords, pruneRecords, readRecord, recordFileName, writeRecord } from '../../../src/core/workflow/records';
import { sampleRecord } from './support/sample';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-records-'));
}

describe('run records', () => {
  it('round-trips through a file written by rename (no temp file left)', async () => {
    const dir = tmp();
    const r = sampleRecord('20261130-060000Z-local-demo-abcd', 1_796_000_000_000);
    const file = await writeRecord(dir, r);
    assert.equal(path.basename(file), recordFileName(r.runId));
    assert.deepEqual(fs.readdirSync(dir), [path.basename(file)]);
    const back = await readRecord(file);
    assert.ok(back.ok);
    assert.deepEqual(back.record, r);
  });

  it('reports a truncated or foreign file and keeps listing the rest', async () => {
    const dir = tmp();
    await writeRecord(dir, sampleRecord('good-1', 1000));
    await writeRecord(dir, sampleRecord('good-2', 2000));
    fs.writeFileSync(path.join(dir, 'run-truncated.json'), fs.readFileSync(path.join(dir, 'run-good-1.json'), 'utf8').slice(0, 200));
    fs.writeFileSync(path.join(dir, 'run-foreign.json'), JSON.stringify({ schema: 'x', version: 1 }));
    fs.writeFileSync(path.join(dir, 'run-future.json'), JSON.stringify({ ...sampleRecord('f', 3000), version: 99 }));
    const { records, problems } = await listRecords(dir);
    assert.deepEqual(records.map((x) => x.record.runId), ['good-2', 'good-1'], 'newest first');
    const why = Object.fromEntries(problems.map((p) => [path.basename(p.file), p.problem]));
    assert.match(why['run-truncated.json']!, /not valid JSON/);
    assert.match(why['run-foreign.json']!, /not a run record: schema/);
    assert.match(why['run-future.json']!, /newer version \(record version 99/);
  });

  it('refuses to write an invalid record', async () => {
    await assert.rejects(writeRecord(tmp(), { ...sampleRecord('x', 1), runId: '../escape' }));
  });

  it('prunes to the newest N and removes stale temp files only', async () => {
    const dir = tmp();
    for (let i = 0; i < 5; i++) await writeRecord(dir, sampleRecord(`r${i}`, 1000 + i));
    const stale = path.join(dir, '.run-r9.json.1.2.tmp');
    const fresh = path.join(dir, '.run-r8.json.1.3.tmp');
    fs.writeFileSync(stale, '{');
    fs.writeFileSync(fresh, '{');
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(stale, old, old);
    const removed = await pruneRecords(dir, 2);
    assert.equal(removed.length, 4);
    const left = fs.readdirSync(dir).sort();
    assert.deepEqual(left, ['.run-r8.json.1.3.tmp', 'run-r3.json', 'run-r4.json']);
  });

  it('lists nothing for a missing directory', async () => {
    assert.deepEqual(await listRecords(path.join(tmp(), 'nope')), { records: [], problems: [] });
  });
});
