#pragma once
// The user guide inside the app: the README and the docs/ pages it links to, with their pictures
// (resources/guide.qrc keeps the same layout, so the links between pages resolve there too), and
// Back and Contents to find one's way.
#include <QWidget>

namespace hips {

class UserGuide : public QWidget {
    Q_OBJECT
public:
    explicit UserGuide(QWidget* parent = nullptr);
};

}  // namespace hips
