;; Sorting books (simple): move the hardback from the table to the shelf.
(define (problem sorting_books_0)
    (:domain igibson)
    (:objects
        hardback_1 - movable
        shelf_1 table_1 - object
    )
    (:init
        (ontop hardback_1 table_1)
    )
    (:goal
        (and
            (ontop hardback_1 shelf_1)
        )
    )
)
