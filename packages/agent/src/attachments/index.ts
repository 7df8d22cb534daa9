export { addAttachment, type AttachmentUpload } from './add';
export { attachmentBlock, contentWithAttachments } from './content';
export { prepareAttachments, type PreparedAttachments } from './prepare';
