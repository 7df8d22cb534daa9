/**
 * Version 18 (issue 26): an image attachment's thumbnail (made by the renderer beside the resized
 * image, at most ATTACHMENT_LIMITS.thumbMaxSide px), so a transcript does not load full images;
 * `created_at` indexed for the start-up sweep of attachments no message refers to.
 */
export const V18_ATTACHMENT_THUMBS = `
ALTER TABLE attachments ADD COLUMN thumb BLOB;
ALTER TABLE attachments ADD COLUMN thumb_mime TEXT;
CREATE INDEX idx_attachments_created ON attachments(created_at);
`;
