/// What an attribute of type `.objectIDAttributeType` holds: an object ID. Object IDs are a
/// type of the core above this module, which adopts this protocol so that the model's value
/// rules (``AttributeValue``) recognise them.
package protocol StoredObjectID: AnyObject {}
