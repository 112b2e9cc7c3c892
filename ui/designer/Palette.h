#pragma once
// What can be dragged onto the canvas: a party, a host, and each role.
#include <QListWidget>

namespace hips {

class Palette : public QListWidget {
    Q_OBJECT
public:
    explicit Palette(QWidget* parent = nullptr);

protected:
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
};

}  // namespace hips
