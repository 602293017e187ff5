import { expect } from 'chai';
import {
  IdentityDocumentLimitError,
  identityDocumentsDecider,
  type IdentityDocumentsCommand,
} from '../../commands/identity-documents/decide.ts';
import { MAX_IDENTITY_DOCUMENTS, type IdentityDocumentsEvent } from '../../commands/identity-documents/events.ts';
import { sanitiseFileName } from '../../commands/identity-documents/file-name.ts';
import { NotFoundError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const base = { tenant: 'demo', memberId: 1, at };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const file = {
  documentType: 'passport' as const,
  fileName: 'passport.pdf',
  contentType: 'application/pdf' as const,
  size: 2048,
  sha256: 'a'.repeat(64),
};
const uploaded = (n: number): IdentityDocumentsEvent => ({
  type: 'IdentityDocumentUploaded',
  data: { ...base, documentId: id(n), ...file },
});
const upload = (n: number): IdentityDocumentsCommand => ({ type: 'UploadIdentityDocument', ...base, documentId: id(n), ...file });
const removed = (n: number): IdentityDocumentsEvent => ({ type: 'IdentityDocumentRemoved', data: { ...base, documentId: id(n) } });
const reviewed = (n: number, status: 'approved' | 'rejected'): IdentityDocumentsEvent => ({
  type: 'IdentityDocumentReviewed',
  data: { ...base, documentId: id(n), status },
});
const review = (n: number, status: 'approved' | 'rejected'): IdentityDocumentsCommand => ({
  type: 'ReviewIdentityDocument',
  ...base,
  documentId: id(n),
  status,
});
const full = Array.from({ length: MAX_IDENTITY_DOCUMENTS }, (_, i) => uploaded(i + 1));

describe('identity documents decider', () => {
  it('given no documents, when a member uploads one, then IdentityDocumentUploaded', () => {
    spec(identityDocumentsDecider)
      .given([])
      .when(upload(1))
      .then([uploaded(1)]);
  });

  it('given 9 documents, when a member uploads a tenth, then it is kept', () => {
    spec(identityDocumentsDecider)
      .given(full.slice(0, 9))
      .when(upload(10))
      .then([uploaded(10)]);
  });

  it('given 10 documents, when a member uploads an eleventh, then a conflict (409)', () => {
    spec(identityDocumentsDecider)
      .given(full)
      .when(upload(11))
      .thenThrows(IdentityDocumentLimitError, /at most 10/);
  });

  it('given 10 documents of which one was removed, when a member uploads another, then it is kept', () => {
    spec(identityDocumentsDecider)
      .given([...full, removed(3)])
      .when(upload(11))
      .then([uploaded(11)]);
  });

  it('given a document, when the same upload command runs again (same id), then nothing', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1)])
      .when(upload(1))
      .thenNothingHappened();
  });

  it('given a document, when the member removes it, then IdentityDocumentRemoved', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1), reviewed(1, 'approved')])
      .when({ type: 'RemoveIdentityDocument', ...base, documentId: id(1) })
      .then([removed(1)]);
  });

  it('given a removed document, when the member removes it again, then not found (404)', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1), removed(1)])
      .when({ type: 'RemoveIdentityDocument', ...base, documentId: id(1) })
      .thenThrows(NotFoundError);
  });

  it('given no such document, when the member removes it, then not found (404)', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1)])
      .when({ type: 'RemoveIdentityDocument', ...base, documentId: id(2) })
      .thenThrows(NotFoundError);
  });

  it('given a pending document, when the house approves it, then IdentityDocumentReviewed approved', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1)])
      .when(review(1, 'approved'))
      .then([reviewed(1, 'approved')]);
  });

  it('given an approved document, when the house approves it again, then nothing; when it rejects it, then IdentityDocumentReviewed rejected', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1), reviewed(1, 'approved')])
      .when(review(1, 'approved'))
      .thenNothingHappened();
    spec(identityDocumentsDecider)
      .given([uploaded(1), reviewed(1, 'approved')])
      .when(review(1, 'rejected'))
      .then([reviewed(1, 'rejected')]);
  });

  it('given a removed or unknown document, when the house decides, then not found', () => {
    spec(identityDocumentsDecider)
      .given([uploaded(1), removed(1)])
      .when(review(1, 'approved'))
      .thenThrows(NotFoundError);
    spec(identityDocumentsDecider)
      .given([])
      .when(review(1, 'rejected'))
      .thenThrows(NotFoundError, /no identity document/);
  });
});

describe('identity document file names', () => {
  it('keep only the last path segment', () => {
    expect(sanitiseFileName('C:\\Users\\anna\\passport.pdf', 'application/pdf')).to.equal('passport.pdf');
    expect(sanitiseFileName('../../etc/passwd', 'application/pdf')).to.equal('passwd');
  });

  it('drop control and invisible formatting characters, and characters file systems reject', () => {
    expect(sanitiseFileName('scan\u202egpj.exe', 'image/png')).to.equal('scangpj.exe');
    expect(sanitiseFileName('a\u0000b\u0007c\u200b.png', 'image/png')).to.equal('abc.png');
    expect(sanitiseFileName('what?<is>|"this"*.jpg', 'image/jpeg')).to.equal('what__is___this__.jpg');
  });

  it('are NFC, with single spaces and no leading dots', () => {
    expect(sanitiseFileName('Pa\u0073\u0073 a\u030A  \t x.pdf', 'application/pdf')).to.equal('Pass \u00e5 x.pdf');
    expect(sanitiseFileName(' ..  .htaccess', 'application/pdf')).to.equal('htaccess');
  });

  it('are at most 200 characters, the extension kept, and a character never split', () => {
    const long = sanitiseFileName(`${'a'.repeat(300)}.pdf`, 'application/pdf');
    expect(long).to.have.length(200);
    expect(long.endsWith('.pdf')).to.equal(true);
    const emoji = sanitiseFileName(`${'😀'.repeat(150)}.png`, 'image/png');
    expect(emoji.length).to.be.at.most(200);
    expect(emoji).to.match(/^(😀)+\.png$/u);
    expect(sanitiseFileName('b'.repeat(250), 'image/png')).to.equal('b'.repeat(200));
  });

  it('become document.<ext> of the detected type when nothing is left', () => {
    expect(sanitiseFileName('', 'image/jpeg')).to.equal('document.jpg');
    expect(sanitiseFileName('\u200b/ ', 'application/pdf')).to.equal('document.pdf');
    expect(sanitiseFileName('...', 'image/png')).to.equal('document.png');
  });
});
