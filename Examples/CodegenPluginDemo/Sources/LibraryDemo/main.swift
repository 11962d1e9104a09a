import OpenCoreData

// Author and Book are not written here: the OpenCoreDataCodegen plugin generates them
// from Library.xcdatamodeld when this target builds.
let model = NSManagedObjectModel()
let authorRequest: NSFetchRequest<Author> = Author.fetchRequest()
let bookRequest: NSFetchRequest<Book> = Book.fetchRequest()
let pages: KeyPath<Book, Int32> = \Book.pages
let books: KeyPath<Author, NSSet?> = \Author.books
print(authorRequest.entityName ?? "", bookRequest.entityName ?? "", pages, books, model.entities.count)
